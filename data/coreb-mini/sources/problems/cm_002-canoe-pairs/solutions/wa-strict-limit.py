import sys

data = sys.stdin.read().split()
n, limit = int(data[0]), int(data[1])
w = sorted(int(x) for x in data[2:2 + n])
lo, hi = 0, n - 1
canoes = 0
while lo <= hi:
    if lo < hi and w[lo] + w[hi] < limit:
        lo += 1
    hi -= 1
    canoes += 1
print(canoes)
