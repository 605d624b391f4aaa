"""Two symptom entries of batch 44, told in words: a GeForce GTX 16xx card named with NaN or black /
green images (gtx16xx-fp16-broken), and DistributedSampler's order that never changes because
set_epoch() is missing (distributed-sampler-set-epoch-missing).
Each wording names its cause first; each close text (fp16 that is only slow on the card, a black
screen of the display, NaN on an RTX card; set_epoch called, a plain sampler's order, padding of
the last batch) does not name that cause."""

from __future__ import annotations

from kb_wordings import wording_tests

WORDINGS = [
    # The card and the outcome on one line.
    ("gtx16xx-fp16-broken", "NaN loss on 1660 super"),  # https://github.com/dreamgaussian/dreamgaussian/issues/36
    ("gtx16xx-fp16-broken", "My GTX 1650 produces black images in half precision, fp32 is fine."),
    ("gtx16xx-fp16-broken", "fp16 inference gives NaN on a GeForce GTX 1660 Ti but works on an RTX 2070"),
    ("gtx16xx-fp16-broken", "GTX 1660 Super 跑半精度生成黑图"),
    # AUTOMATIC1111's NaN check (fp16-inference-overflow's message) with the card named: the card's reading first.
    ("gtx16xx-fp16-broken", "GPU: NVIDIA GeForce GTX 1660 Ti\nmodules.devices.NansException: A tensor with all NaNs was "
                            "produced in Unet. This could be either because there's not enough precision to represent "
                            "the picture, or because your video card does not support half type."),
    # The docs' warning quoted, set_epoch said to be needed or missing, the same order per epoch.
    ("distributed-sampler-set-epoch-missing", "In distributed mode, calling the set_epoch() method at the beginning of "
                                              "each epoch before creating the DataLoader iterator is necessary to make "
                                              "shuffling work properly across multiple epochs. Otherwise, the same "
                                              "ordering will be always used."),  # https://github.com/Spijkervet/SimCLR/pull/26
    ("distributed-sampler-set-epoch-missing", "From [Pytoch docs](https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler), "
                                              "in order to achieve this, `set_epoch` must be called on the sampler."),  # https://github.com/yangkky/distributed_tutorial/issues/5
    ("distributed-sampler-set-epoch-missing", "Is there any reason that we have to use `set_epoch` method to set a new "
                                              "seed? If we don't call it, the order for each epoch will be **the same**!"),  # https://github.com/pytorch/pytorch/issues/11324
    ("distributed-sampler-set-epoch-missing", "I forgot to call sampler.set_epoch(epoch), so every epoch had the same batches."),
    ("distributed-sampler-set-epoch-missing", "训练循环里没有调用 train_sampler.set_epoch，导致每个 epoch 顺序都一样"),
]

NOT_THESE = [
    # fp16 on the card that works, only slowly: fp16-no-speedup-without-tensor-cores
    ("gtx16xx-fp16-broken", "AMP training on my GTX 1660 Ti is slower than fp32, no tensor cores"),
    # the display going dark is not an image made of NaN
    ("gtx16xx-fp16-broken", "The monitor goes to a black screen during training on my GTX 1650"),
    # NaN in fp16 on another card
    ("gtx16xx-fp16-broken", "fp16 inference returns NaN on my RTX 3090, bf16 works"),
    # set_epoch called as it should be
    ("distributed-sampler-set-epoch-missing", "sampler.set_epoch(epoch) is called at the beginning of every epoch"),
    # a plain sampler, one process: the generator's seed, not DistributedSampler
    ("distributed-sampler-set-epoch-missing", "RandomSampler gives the same order every epoch after torch.manual_seed(0)"),
    # DistributedSampler padding the last batch with repeated samples
    ("distributed-sampler-set-epoch-missing", "DistributedSampler adds duplicate samples so the dataset divides evenly "
                                              "between ranks, which skews my validation metrics"),
]

test_wording_names_its_cause_first, test_close_text_is_not_this_cause = wording_tests(WORDINGS, NOT_THESE)
