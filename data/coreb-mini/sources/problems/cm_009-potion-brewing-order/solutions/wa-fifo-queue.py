import sys
from collections import deque

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
succ = [[] for _ in range(n + 1)]
indeg = [0] * (n + 1)
for i in range(m):
    a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    succ[a].append(b)
    indeg[b] += 1
queue = deque(v for v in range(1, n + 1) if indeg[v] == 0)
order = []
while queue:
    v = queue.popleft()
    order.append(v)
    for w in succ[v]:
        indeg[w] -= 1
        if indeg[w] == 0:
            queue.append(w)
print(' '.join(map(str, order)) if len(order) == n else 'IMPOSSIBLE')
