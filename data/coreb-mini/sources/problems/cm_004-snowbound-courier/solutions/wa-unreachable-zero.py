import sys
from collections import deque

data = sys.stdin.read().split()
rows, cols = int(data[0]), int(data[1])
grid = data[2:2 + rows]
seen = [[False] * cols for _ in range(rows)]
for r in range(rows):
    for c in range(cols):
        if grid[r][c] == 'S':
            sr, sc = r, c
answer = 0
queue = deque([(sr, sc, 0)])
seen[sr][sc] = True
while queue:
    r, c, d = queue.popleft()
    if grid[r][c] == 'T':
        answer = d
        break
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols and not seen[nr][nc] and grid[nr][nc] != '#':
            seen[nr][nc] = True
            queue.append((nr, nc, d + 1))
print(answer)
