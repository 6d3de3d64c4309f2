rows, cols = gets.split.map(&:to_i)
grid = Array.new(rows) { gets.strip }
start = target = nil
grid.each_with_index do |line, r|
  c = line.index('S')
  start = r * cols + c if c
  c = line.index('T')
  target = r * cols + c if c
end
dist = Array.new(rows * cols, -1)
dist[start] = 0
queue = [start]
head = 0
while head < queue.size
  cur = queue[head]
  head += 1
  break if cur == target
  r, c = cur.divmod(cols)
  [[r + 1, c], [r - 1, c], [r, c + 1], [r, c - 1]].each do |nr, nc|
    next if nr < 0 || nr >= rows || nc < 0 || nc >= cols
    next if grid[nr][nc] == '#'
    nxt = nr * cols + nc
    next if dist[nxt] >= 0
    dist[nxt] = dist[cur] + 1
    queue << nxt
  end
end
puts dist[target]
