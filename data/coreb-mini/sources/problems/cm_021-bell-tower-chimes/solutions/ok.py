import sys
from math import gcd


def main():
    data = sys.stdin.read().split()
    m, lo, hi = int(data[0]), int(data[1]), int(data[2])
    a = [int(x) for x in data[3:3 + m]]
    total = 0
    # depth-first over subsets, pruning as soon as the lcm exceeds hi
    def go(start, cur, size):
        nonlocal total
        for i in range(start, m):
            nxt = cur // gcd(cur, a[i]) * a[i]
            if nxt > hi:
                continue
            cnt = hi // nxt - (lo - 1) // nxt
            total += cnt if size % 2 == 0 else -cnt
            go(i + 1, nxt, size + 1)
    go(0, 1, 0)
    print(total)


main()
