r, c = STDIN.gets.split.map(&:to_i)
grid = Array.new(r) { STDIN.gets.strip }
dist = Array.new(r) { Array.new(c, -1) }
land = 0
start = nil
r.times do |i|
  c.times do |j|
    start ||= [i, j] if grid[i][j] == 'W'
    land += 1 if grid[i][j] == '.'
  end
end
queue = []
if start
  dist[start[0]][start[1]] = 0
  queue << start
end
head = 0
hours = 0
flooded = 0
while head < queue.size
  i, j = queue[head]
  head += 1
  [[1, 0], [-1, 0], [0, 1], [0, -1]].each do |di, dj|
    ni = i + di
    nj = j + dj
    next if ni < 0 || nj < 0 || ni >= r || nj >= c
    next if grid[ni][nj] != '.' || dist[ni][nj] >= 0
    dist[ni][nj] = dist[i][j] + 1
    hours = dist[ni][nj] if dist[ni][nj] > hours
    flooded += 1
    queue << [ni, nj]
  end
end
puts "#{hours} #{land - flooded}"
