data = STDIN.read.split.map(&:to_i)
n = data[0]
h = data[1, n]
ans = Array.new(n, 0)
stack = []
(n - 1).downto(0) do |i|
  stack.pop while !stack.empty? && h[stack.last] <= h[i]
  ans[i] = stack.empty? ? 0 : stack.last - i
  stack.push(i)
end
puts ans.join(' ')
