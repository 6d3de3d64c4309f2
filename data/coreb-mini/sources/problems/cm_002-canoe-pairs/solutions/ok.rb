data = STDIN.read.split.map(&:to_i)
n, limit = data[0], data[1]
w = data[2, n].sort
i = 0
j = n - 1
canoes = 0
while i <= j
  i += 1 if i < j && w[i] + w[j] <= limit
  j -= 1
  canoes += 1
end
puts canoes
