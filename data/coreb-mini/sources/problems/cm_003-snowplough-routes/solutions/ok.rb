MOD = 1_000_000_007
rows, cols = gets.split.map(&:to_i)
ways = Array.new(cols, 0)
rows.times do |r|
  line = gets.strip
  cols.times do |c|
    if line[c] == '#'
      ways[c] = 0
    elsif r.zero? && c.zero?
      ways[c] = 1
    elsif c > 0
      ways[c] = (ways[c] + ways[c - 1]) % MOD
    end
  end
end
puts ways[cols - 1]
