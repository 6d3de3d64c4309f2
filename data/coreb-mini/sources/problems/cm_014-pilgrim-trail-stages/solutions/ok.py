import sys


def days_needed(a, limit):
    days, cur = 1, 0
    for x in a:
        if cur + x > limit:
            days += 1
            cur = x
        else:
            cur += x
    return days


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    lo, hi = max(a), sum(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if days_needed(a, mid) <= k:
            hi = mid
        else:
            lo = mid + 1
    print(lo)


main()
