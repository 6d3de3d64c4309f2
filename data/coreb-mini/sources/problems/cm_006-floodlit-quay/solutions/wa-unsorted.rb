data = STDIN.read.split.map(&:to_i)
n = data[0]
spans = Array.new(n) { |i| [data[1 + 2 * i], data[2 + 2 * i]] }
total = 0
start, finish = spans[0]
spans.drop(1).each do |a, b|
  if a <= finish
    finish = [finish, b].max
  else
    total += finish - start
    start = a
    finish = b
  end
end
total += finish - start
puts total
