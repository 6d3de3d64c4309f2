r, c = STDIN.gets.split.map(&:to_i)
grid = Array.new(r) { STDIN.gets.strip }
cmds = (STDIN.gets || '').strip
row = grid.index { |line| line.include?('S') }
col = grid[row].index('S')
moves = { 'N' => [-1, 0], 'E' => [0, 1], 'S' => [1, 0], 'W' => [0, -1] }
order = %w[N E S W]
facing = 'N'
seen = { [row, col] => true }
cmds.each_char do |ch|
  case ch
  when 'L' then facing = order[(order.index(facing) + 3) % 4]
  when 'R' then facing = order[(order.index(facing) + 1) % 4]
  when 'F'
    dr, dc = moves[facing]
    nr = row + dr
    nc = col + dc
    if nr.between?(0, r - 1) && nc.between?(0, c - 1) && grid[nr][nc] != '#'
      row = nr
      col = nc
      seen[[row, col]] = true
    end
  end
end
puts "#{seen.size} #{row + 1} #{col + 1} #{facing}"
