data = STDIN.read.split.map(&:to_i)
n, k = data[0], data[1]
s = data[2, n]
count = Hash.new(0)
distinct = 0
left = 0
best_len = 0
best_start = 0
n.times do |right|
  distinct += 1 if count[s[right]].zero?
  count[s[right]] += 1
  while distinct > k
    count[s[left]] -= 1
    distinct -= 1 if count[s[left]].zero?
    left += 1
  end
  if right - left + 1 > best_len
    best_len = right - left + 1
    best_start = left
  end
end
puts "#{best_len} #{best_start + 1}"
