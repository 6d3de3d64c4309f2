import sys

data = sys.stdin.read().split()
n = int(data[0])
groups = {}
for word in data[1:1 + n]:
    key = ''.join(sorted(set(word)))
    groups[key] = groups.get(key, 0) + 1
print(sum(k * (k - 1) // 2 for k in groups.values()))
