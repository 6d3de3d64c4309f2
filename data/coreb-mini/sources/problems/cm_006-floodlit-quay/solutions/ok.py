import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    spans = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
    total = 0
    start, end = spans[0]
    for a, b in spans[1:]:
        if a <= end:
            end = max(end, b)
        else:
            total += end - start
            start, end = a, b
    total += end - start
    print(total)


main()
