n, k = STDIN.gets.split.map(&:to_i)
a = STDIN.gets.split.map(&:to_i)
a = a[0, n]

feasible = lambda do |limit|
  days = 1
  cur = 0
  a.each do |x|
    if cur + x > limit
      days += 1
      cur = x
    else
      cur += x
    end
  end
  days <= k
end

# smallest limit in [max, sum] that needs at most k stages
answer = (a.max..a.sum).bsearch { |limit| feasible.call(limit) }
puts answer
