import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    h = list(map(int, data[1:1 + n]))
    ans = [0] * n
    for i in range(n):
        for j in range(i + 1, n - 1):
            if h[j] > h[i]:
                ans[i] = j - i
                break
    print(" ".join(map(str, ans)))


main()
