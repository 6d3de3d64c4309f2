import sys
from collections import Counter


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    groups = Counter(''.join(sorted(word)) for word in data[1:1 + n])
    print(sum(k * (k - 1) // 2 for k in groups.values()))


main()
