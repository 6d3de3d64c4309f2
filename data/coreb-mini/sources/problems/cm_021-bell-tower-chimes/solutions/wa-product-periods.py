import sys


def main():
    data = sys.stdin.read().split()
    m, lo, hi = int(data[0]), int(data[1]), int(data[2])
    a = [int(x) for x in data[3:3 + m]]
    total = 0
    for mask in range(1, 1 << m):
        prod = 1
        bits = 0
        for i in range(m):
            if mask >> i & 1:
                prod *= a[i]
                bits += 1
        if prod > hi:
            continue
        cnt = hi // prod - (lo - 1) // prod
        total += cnt if bits % 2 == 1 else -cnt
    print(total)


main()
