/** A person's scrolling in a live list, by the mouse wheel (not a script's scrollTop). */
import { expect, type Locator, type Page } from '@playwright/test';

/**
 * Turns the wheel up by 40 rows over a list following its newest row, `tries` times while a flood
 * arrives: each time following must stop (its switch goes off), and between tries it is switched
 * on again. Whether a wheel lands in the same frame as a batch of new rows is up to timing, so
 * one try can pass by luck; the tries start at different phases of the batches.
 */
export async function wheelUpStopsFollowing(page: Page, list: Locator, follow: Locator, tries: number): Promise<void> {
  const rowHeight = Number(await list.getAttribute('data-row-height'));
  const box = (await list.boundingBox())!;
  for (let i = 0; i < tries; i++) {
    if (!(await follow.isChecked())) await follow.check();
    await expect.poll(() => fromBottom(list)).toBeLessThan(rowHeight * 1.5);
    // (over the list again: checking the switch moved the pointer)
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForTimeout(150 + ((i * 37) % 100));
    await page.mouse.wheel(0, -40 * rowHeight);
    await expect(follow, `try ${i + 1}: the wheel up stops following`).not.toBeChecked({ timeout: 3_000 });
    // (the wheel's scroll has ended before the next try moves the list)
    await scrollSettled(list);
  }
}

/** How far, in px, the list's scroll position is from its end. */
export function fromBottom(list: Locator): Promise<number> {
  return list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
}

/** Waits until the list's scroll position reads the same twice, 100 ms apart; returns it. */
export async function scrollSettled(list: Locator): Promise<number> {
  let last = -1;
  await expect
    .poll(
      async () => {
        const top = await list.evaluate((el) => el.scrollTop);
        const same = top === last;
        last = top;
        return same;
      },
      { intervals: [100] },
    )
    .toBe(true);
  return last;
}
