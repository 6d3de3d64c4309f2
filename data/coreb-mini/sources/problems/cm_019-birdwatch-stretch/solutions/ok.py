import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    s = data[2:2 + n]
    count = {}
    left = 0
    best_len, best_start = 0, 0
    for right in range(n):
        x = s[right]
        count[x] = count.get(x, 0) + 1
        while len(count) > k:
            y = s[left]
            count[y] -= 1
            if count[y] == 0:
                del count[y]
            left += 1
        if right - left + 1 > best_len:
            best_len, best_start = right - left + 1, left
    print(best_len, best_start + 1)


main()
