s = "yes"
if s
    print "ok"
endif
