cuda = "11.7"
