data = STDIN.read.split.map(&:to_i)
n, q = data[0], data[1]
prefix = Array.new(n + 1, 0)
n.times { |i| prefix[i + 1] = prefix[i] + data[2 + i] }
out = []
pos = 2 + n
q.times do
  l, r = data[pos], data[pos + 1]
  pos += 2
  out << prefix[r] - prefix[l - 1]
end
puts out.join("\n")
