import sys


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


data = sys.stdin.read().split()
q = int(data[0])
for j in range(q):
    w, h = int(data[1 + 2 * j]), int(data[2 + 2 * j])
    g = gcd(w, h)
    print(g, w * h // g)
