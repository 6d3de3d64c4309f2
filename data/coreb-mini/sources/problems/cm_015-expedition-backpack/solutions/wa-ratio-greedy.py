import sys


def main():
    data = sys.stdin.read().split()
    n, cap = int(data[0]), int(data[1])
    items = []
    for i in range(n):
        items.append((int(data[2 + 2 * i]), int(data[3 + 2 * i])))
    items.sort(key=lambda it: it[1] / it[0], reverse=True)
    total = 0
    room = cap
    for w, v in items:
        if w <= room:
            room -= w
            total += v
    print(total)


main()
