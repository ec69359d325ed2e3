import type { ParameterizedContext } from 'koa';
import type { PetMaintenance } from '@petstore/domain';
import { entityTag, validatePetPatch } from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { readJsonBody } from './body.js';
import { checkBody, type RequestValidators } from './validation.js';
import { serializePet } from './serialize.js';
import type { AppState } from './state.js';
import type { ApiRouter } from './api-router.js';
import { fromDomain } from './route-helpers.js';

/** The `If-Match` field value as sent (several field lines arrive joined with `, `); the domain reads it. */
const ifMatchOf = (ctx: ParameterizedContext<AppState>): string | undefined => ctx.req.headers['if-match'];

/**
 * `PATCH` and `DELETE /v1/pets/{petId}` (docs/rules.md §12). The rules, the role check and `If-Match` are the domain's (`PetMaintenance`); a client key is
 * refused before its body is read. A `PATCH` answers the pet with its revision as `ETag`.
 */
export const addPetMaintenanceRoutes = (
  routes: ApiRouter,
  maintenance: PetMaintenance,
  validators: RequestValidators,
): void => {
  routes.patch({ name: 'updatePet', path: '/v1/pets/:petId' }, async (ctx) => {
    const allowed = maintenance.authorize(ctx.state.caller);
    if (!allowed.ok) throw fromDomain(allowed.error);
    const body = await readJsonBody(ctx);
    if (body === undefined)
      throw new HttpError(
        'validation_failed',
        'a JSON body is required: {"name": …, "categoryId": …, "status": …} (any of them)',
      );
    checkBody(validators.petPatch, body, validatePetPatch);
    const result = await maintenance.patch(ctx.state.caller!, ctx.params.petId, body, ifMatchOf(ctx));
    if (!result.ok) throw fromDomain(result.error);
    ctx.set('ETag', entityTag(result.value.revision));
    answerJson(ctx, serializePet(result.value));
  });

  routes.delete({ name: 'deletePet', path: '/v1/pets/:petId' }, async (ctx) => {
    const allowed = maintenance.authorize(ctx.state.caller);
    if (!allowed.ok) throw fromDomain(allowed.error);
    const result = await maintenance.withdraw(ctx.state.caller!, ctx.params.petId, ifMatchOf(ctx));
    if (!result.ok) throw fromDomain(result.error);
    ctx.status = 204;
  });
};
