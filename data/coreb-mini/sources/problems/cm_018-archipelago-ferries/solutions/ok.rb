n, q = STDIN.gets.split.map(&:to_i)
parent = (0..n).to_a
size = Array.new(n + 1, 1)
find = lambda do |x|
  root = x
  root = parent[root] while parent[root] != root
  while parent[x] != root
    nxt = parent[x]
    parent[x] = root
    x = nxt
  end
  root
end
groups = n
largest = 1
out = []
q.times do
  u, v = STDIN.gets.split.map(&:to_i)
  a = find.call(u)
  b = find.call(v)
  if a != b
    a, b = b, a if size[a] < size[b]
    parent[b] = a
    size[a] += size[b]
    groups -= 1
    largest = size[a] if size[a] > largest
  end
  out << "#{groups} #{largest}"
end
puts out.join("\n")
