function new_list = add_item[T](list : vec[T], pos : int, item : T)
    new_list = list
    new_list[pos] = item
endfunction
list1 = vec[int](10)
l = add_item(list1, 4, "text")
