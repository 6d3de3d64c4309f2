import sys
from bisect import bisect_right

data = sys.stdin.read().split()
n = int(data[0])
tails = []
for h in map(int, data[1:1 + n]):
    k = bisect_right(tails, h)
    if k == len(tails):
        tails.append(h)
    else:
        tails[k] = h
print(len(tails))
