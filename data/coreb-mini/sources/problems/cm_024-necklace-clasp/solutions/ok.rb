n = STDIN.gets.to_i
s = STDIN.gets.strip
t = s + s
# two candidate starts i and j; k is the length of their common prefix
i = 0
j = 1
k = 0
while i < n && j < n && k < n
  a = t.getbyte(i + k)
  b = t.getbyte(j + k)
  if a == b
    k += 1
    next
  end
  if a > b
    i += k + 1
  else
    j += k + 1
  end
  j += 1 if i == j
  k = 0
end
start = [i, j].min
puts start + 1
puts t[start, n]
