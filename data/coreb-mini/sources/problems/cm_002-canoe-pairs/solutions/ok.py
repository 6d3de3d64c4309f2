import sys


def min_canoes(weights, limit):
    weights.sort()
    i, j = 0, len(weights) - 1
    canoes = 0
    while i <= j:
        if i < j and weights[i] + weights[j] <= limit:
            i += 1
        j -= 1
        canoes += 1
    return canoes


def main():
    data = sys.stdin.buffer.read().split()
    n, limit = int(data[0]), int(data[1])
    weights = [int(x) for x in data[2:2 + n]]
    print(min_canoes(weights, limit))


main()
