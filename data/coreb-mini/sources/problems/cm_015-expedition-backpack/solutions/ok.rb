data = STDIN.read.split.map(&:to_i)
n, cap = data[0], data[1]
best = Array.new(cap + 1, 0)
n.times do |i|
  w = data[2 + 2 * i]
  v = data[3 + 2 * i]
  next if w > cap
  c = cap
  while c >= w
    cand = best[c - w] + v
    best[c] = cand if cand > best[c]
    c -= 1
  end
end
puts best[cap]
