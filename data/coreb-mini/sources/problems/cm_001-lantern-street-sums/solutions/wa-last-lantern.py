import sys

data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
b = list(map(int, data[2:2 + n]))
prefix = [0]
for i in range(n - 1):
    prefix.append(prefix[-1] + b[i])
prefix.append(prefix[-1])
idx = 2 + n
for _ in range(q):
    l, r = int(data[idx]), int(data[idx + 1])
    idx += 2
    print(prefix[r] - prefix[l - 1])
