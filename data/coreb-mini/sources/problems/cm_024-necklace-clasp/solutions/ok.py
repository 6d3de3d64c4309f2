import sys


def least_rotation(s):
    n = len(s)
    t = s + s
    i, j, k = 0, 1, 0
    while i < n and j < n and k < n:
        a, b = t[i + k], t[j + k]
        if a == b:
            k += 1
            continue
        if a > b:
            i += k + 1
        else:
            j += k + 1
        if i == j:
            j += 1
        k = 0
    return min(i, j)


def main():
    data = sys.stdin.read().split()
    s = data[1]
    start = least_rotation(s)
    print(start + 1)
    print(s[start:] + s[:start])


main()
