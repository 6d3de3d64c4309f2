n = gets.to_i
groups = Hash.new(0)
n.times { groups[gets.strip.chars.sort.join] += 1 }
puts groups.values.sum { |k| k * (k - 1) / 2 }
