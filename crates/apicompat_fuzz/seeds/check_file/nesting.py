import torch
x = ((((((((((((((((((((((((((((((((torch.a))))))))))))))))))))))))))))))))
y = [[[[[[[[[[[[[[[[[[[[torch.b]]]]]]]]]]]]]]]]]]]]
if a:
 if b:
  if c:
   if d:
    if e:
     torch.c.d.e.f.g.h.i.j.k
z = -~-~-~-~-~-~-~-~-~-~torch.e
w = a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z
