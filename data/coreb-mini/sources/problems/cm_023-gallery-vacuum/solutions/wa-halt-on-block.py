import sys


def main():
    data = sys.stdin.read().split()
    r, c = int(data[0]), int(data[1])
    grid = data[2:2 + r]
    commands = data[2 + r] if len(data) > 2 + r else ""
    for i in range(r):
        j = grid[i].find('S')
        if j >= 0:
            row, col = i, j
    dirs = [(-1, 0), (0, 1), (1, 0), (0, -1)]
    names = "NESW"
    facing = 0
    visited = {(row, col)}
    for cmd in commands:
        if cmd == 'L':
            facing = (facing + 3) % 4
        elif cmd == 'R':
            facing = (facing + 1) % 4
        elif cmd == 'F':
            nr, nc = row + dirs[facing][0], col + dirs[facing][1]
            if not (0 <= nr < r and 0 <= nc < c) or grid[nr][nc] == '#':
                break
            row, col = nr, nc
            visited.add((row, col))
    print(len(visited), row + 1, col + 1, names[facing])


main()
