import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    h = list(map(int, data[1:1 + n]))
    ans = [0] * n
    stack = []
    for i in range(n):
        while stack and h[stack[-1]] < h[i]:
            j = stack.pop()
            ans[j] = i - j
        stack.append(i)
    sys.stdout.write(" ".join(map(str, ans)) + "\n")


main()
