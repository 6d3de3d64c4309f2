data = STDIN.read.split.map(&:to_i)
n = data[0]
tails = []
data[1, n].each do |h|
  k = tails.bsearch_index { |t| t >= h } || tails.size
  tails[k] = h
end
puts tails.size
