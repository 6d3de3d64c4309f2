import sys
from collections import deque


def main():
    data = sys.stdin.read().split()
    r, c = int(data[0]), int(data[1])
    grid = data[2:2 + r]
    dist = [[-1] * c for _ in range(r)]
    queue = deque()
    land = 0
    for i in range(r):
        for j in range(c):
            if grid[i][j] == 'W':
                dist[i][j] = 0
                queue.append((i, j))
            elif grid[i][j] == '.':
                land += 1
    hours = 0
    flooded = 0
    while queue:
        i, j = queue.popleft()
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            ni, nj = i + di, j + dj
            if 0 <= ni < r and 0 <= nj < c and grid[ni][nj] == '.' and dist[ni][nj] < 0:
                dist[ni][nj] = dist[i][j] + 1
                hours = max(hours, dist[ni][nj])
                flooded += 1
                queue.append((ni, nj))
    print(hours, land - flooded)


main()
