data = STDIN.read.split.map(&:to_i)
n, k = data[0], data[1]
seen = Hash.new(0)
seen[0] = 1
prefix = 0
count = 0
data[2, n].each do |x|
  prefix += x
  count += seen[prefix - k]
  seen[prefix] += 1
end
puts count
