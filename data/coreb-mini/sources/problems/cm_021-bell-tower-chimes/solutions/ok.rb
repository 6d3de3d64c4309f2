m, lo, hi = STDIN.gets.split.map(&:to_i)
a = STDIN.read.split.map(&:to_i)[0, m]
total = 0
(1...(1 << m)).each do |mask|
  l = 1
  bits = 0
  m.times do |i|
    next if mask[i].zero?
    bits += 1
    l = l.lcm(a[i])
    break if l > hi
  end
  next if l > hi
  cnt = hi / l - (lo - 1) / l
  total += bits.odd? ? cnt : -cnt
end
puts total
