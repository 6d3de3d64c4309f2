import sys
from math import gcd


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    out = []
    for j in range(q):
        w, h = int(data[1 + 2 * j]), int(data[2 + 2 * j])
        g = gcd(w, h)
        out.append(f"{g} {(w // g) * (h // g)}")
    print("\n".join(out))


main()
