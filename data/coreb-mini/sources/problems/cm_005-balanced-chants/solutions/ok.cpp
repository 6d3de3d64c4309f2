#include <iostream>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    int n;
    std::string chant;
    std::cin >> n >> chant;
    std::vector<int> stack{-1};
    int best = 0;
    for (int i = 0; i < (int)chant.size(); ++i) {
        if (chant[i] == '(') {
            stack.push_back(i);
        } else {
            stack.pop_back();
            if (stack.empty()) stack.push_back(i);
            else if (i - stack.back() > best) best = i - stack.back();
        }
    }
    std::cout << best << "\n";
    return 0;
}
