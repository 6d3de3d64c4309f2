data = STDIN.read.split.map(&:to_i)
n = data[0]
b = data[1, n]
lit = Array.new(n, false)
blocked = Array.new(n, false)
total = 0
(0...n).sort_by { |i| [-b[i], i] }.each do |i|
  next if blocked[i]
  lit[i] = true
  total += b[i]
  blocked[i] = true
  blocked[i - 1] = true if i > 0
  blocked[i + 1] = true if i + 1 < n
end
puts total
