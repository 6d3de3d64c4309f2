import sys


def main():
    data = sys.stdin.read().split()
    n, cap = int(data[0]), int(data[1])
    best = [0] * (cap + 1)
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        if w > cap:
            continue
        for c in range(cap, w - 1, -1):
            cand = best[c - w] + v
            if cand > best[c]:
                best[c] = cand
    print(best[cap])


main()
