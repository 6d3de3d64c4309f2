import sys
from collections import defaultdict


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    s = data[2:2 + n]
    count = defaultdict(int)
    left = 0
    best_len, best_start = 0, 0
    for right in range(n):
        count[s[right]] += 1
        while len(count) > k and left <= right:
            count[s[left]] -= 1
            left += 1
        if right - left + 1 > best_len:
            best_len, best_start = right - left + 1, left
    print(best_len, best_start + 1)


main()
