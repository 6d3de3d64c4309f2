import sys
from collections import deque


def main():
    data = sys.stdin.read().split()
    rows, cols = int(data[0]), int(data[1])
    grid = data[2:2 + rows]
    dist = [[-1] * cols for _ in range(rows)]
    start = target = None
    for r in range(rows):
        c = grid[r].find('S')
        if c >= 0:
            start = (r, c)
        c = grid[r].find('T')
        if c >= 0:
            target = (r, c)
    queue = deque([start])
    dist[start[0]][start[1]] = 0
    while queue:
        r, c = queue.popleft()
        if (r, c) == target:
            break
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < rows and 0 <= nc < cols and dist[nr][nc] < 0 and grid[nr][nc] != '#':
                dist[nr][nc] = dist[r][c] + 1
                queue.append((nr, nc))
    print(dist[target[0]][target[1]])


main()
