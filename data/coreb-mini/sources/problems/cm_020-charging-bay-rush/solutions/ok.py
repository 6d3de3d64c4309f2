import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    events = []
    for i in range(n):
        s, e = int(data[1 + 2 * i]), int(data[2 + 2 * i])
        events.append((s, 1))
        events.append((e, -1))
    # at equal times departures (-1) sort before arrivals (+1)
    events.sort()
    active = best = 0
    best_time = 0
    for t, delta in events:
        active += delta
        if active > best:
            best, best_time = active, t
    print(best, best_time)


main()
