data = STDIN.read.split.map(&:to_i)
n = data[0]
prev2 = 0
prev1 = 0
data[1, n].each do |b|
  cur = [prev1, prev2 + b].max
  prev2 = prev1
  prev1 = cur
end
puts prev1
