import torch
torch.nn.functional.relu(x, inplace=True
class :
  def f(self):
	self.x = torch.foo(
