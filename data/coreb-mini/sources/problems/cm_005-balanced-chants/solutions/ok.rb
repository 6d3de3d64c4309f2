gets
chant = gets.strip
# dp[i] = length of the longest balanced stretch ending at i
dp = Array.new(chant.size, 0)
best = 0
(1...chant.size).each do |i|
  next unless chant[i] == ')'
  if chant[i - 1] == '('
    dp[i] = (i >= 2 ? dp[i - 2] : 0) + 2
  else
    j = i - dp[i - 1] - 1
    if j >= 0 && chant[j] == '('
      dp[i] = dp[i - 1] + 2 + (j >= 1 ? dp[j - 1] : 0)
    end
  end
  best = dp[i] if dp[i] > best
end
puts best
