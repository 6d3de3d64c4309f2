import sys


def longest_balanced(chant):
    stack = [-1]
    best = 0
    for i, ch in enumerate(chant):
        if ch == '(':
            stack.append(i)
        else:
            stack.pop()
            if stack:
                best = max(best, i - stack[-1])
            else:
                stack.append(i)
    return best


def main():
    data = sys.stdin.read().split()
    print(longest_balanced(data[1]))


main()
