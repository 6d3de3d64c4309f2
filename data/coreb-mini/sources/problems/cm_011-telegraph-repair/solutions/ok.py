import sys


def edit_distance(s, t):
    prev = list(range(len(t) + 1))
    for i in range(1, len(s) + 1):
        cur = [i] + [0] * len(t)
        si = s[i - 1]
        for j in range(1, len(t) + 1):
            cost = 0 if si == t[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[len(t)]


def main():
    s, t = sys.stdin.read().split()
    print(edit_distance(s, t))


main()
