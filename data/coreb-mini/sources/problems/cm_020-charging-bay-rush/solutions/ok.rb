data = STDIN.read.split.map(&:to_i)
n = data[0]
events = []
n.times do |i|
  events << [data[1 + 2 * i], 1]
  events << [data[2 + 2 * i], -1]
end
events.sort!
active = 0
best = 0
best_time = 0
events.each do |t, delta|
  active += delta
  if active > best
    best = active
    best_time = t
  end
end
puts "#{best} #{best_time}"
