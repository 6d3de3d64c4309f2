rows, cols = gets.split.map(&:to_i)
grid = Array.new(rows) { gets.strip }
ways = Array.new(rows) { Array.new(cols, 0) }
rows.times do |r|
  cols.times do |c|
    next if grid[r][c] == '#'
    if r.zero? && c.zero?
      ways[r][c] = 1
    else
      ways[r][c] = (r > 0 ? ways[r - 1][c] : 0) + (c > 0 ? ways[r][c - 1] : 0)
    end
  end
end
puts ways[rows - 1][cols - 1]
