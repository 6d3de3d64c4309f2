import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    skip, take = 0, 0
    for i in range(n):
        b = int(data[1 + i])
        skip, take = max(skip, take), skip + b
    print(max(skip, take))


main()
