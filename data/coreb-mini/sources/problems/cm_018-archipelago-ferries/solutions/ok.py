import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    parent = list(range(n + 1))
    size = [1] * (n + 1)

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    groups, largest = n, 1
    out = []
    for i in range(q):
        a = find(int(data[2 + 2 * i]))
        b = find(int(data[3 + 2 * i]))
        if a != b:
            if size[a] < size[b]:
                a, b = b, a
            parent[b] = a
            size[a] += size[b]
            groups -= 1
            largest = max(largest, size[a])
        out.append(f"{groups} {largest}")
    sys.stdout.write("\n".join(out) + "\n")


main()
